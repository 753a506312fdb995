// Values read from a session file are sent to the page as JSON. A value nested thousands of levels
// deep (a hostile or broken `summary.details`) overflows the stack of any recursive serialiser, so
// before a value is sent, whatever lies deeper than MAX_JSON_DEPTH is replaced by a short note.
// Both the check and the copy walk the value with an explicit stack: they never recurse.

/** Nesting levels sent as they are; no session written by an agent comes near it. */
export const MAX_JSON_DEPTH = 256;

/** What stands in for a value nested too deep. */
export const TOO_DEEP = `[nested more than ${MAX_JSON_DEPTH} levels deep: not shown]`;

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Does `value` nest containers deeper than `limit` levels? (Shared references are walked again.) */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (!isContainer(current)) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * `value` itself when it nests containers at most `limit` levels deep (the value itself is the first
 * level); else a copy in which every container below those levels is replaced by {@link TOO_DEEP}.
 */
export function boundDepth<T>(value: T, limit = MAX_JSON_DEPTH): T {
  if (!deeperThan(value, limit)) return value;
  const copyOf = (container: Container): Container => (Array.isArray(container) ? [] : {});
  if (!isContainer(value)) return value;
  const root = copyOf(value);
  const stack: Array<[Container, Container, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [source, target, depth] = stack.pop()!;
    for (const [key, child] of Object.entries(source)) {
      let copied: unknown = child;
      if (isContainer(child)) {
        if (depth + 1 >= limit) copied = TOO_DEEP;
        else {
          copied = copyOf(child);
          stack.push([child, copied as Container, depth + 1]);
        }
      }
      if (Array.isArray(target)) target[Number(key)] = copied;
      else target[key] = copied;
    }
  }
  return root as T;
}
