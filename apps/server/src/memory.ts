import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection, for after an idle session was released. V8 collects only when the
 * program allocates, and an idle server allocates next to nothing, so without one the released
 * session's heap (and the pages it occupies) would stay until the next open. `--expose-gc` is set
 * at run time and `gc` taken from a fresh context, as Jest's leak detection does; the flag only
 * adds that function. Undefined when the runtime refuses.
 */
export function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}
