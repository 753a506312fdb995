// The running SHA-256 of the bytes an open session has read of its file (FileTail), computed on a
// helper thread. The whole read of a session hashes every byte of the file, and on the server's own
// thread that was about 0.65 s of a 1 GB session's open (SHA-256 runs at about 1.5 GB/s here), time
// the parse and the snapshot waited for. Now the bytes are copied into a ring of shared slots (a
// memcpy, about a tenth of the hashing) and one thread for the whole process hashes them, in the order
// they were added, while the server goes on parsing. The answer is the same SHA-256 of the same
// bytes, asked synchronously as before: a digest waits (Atomics.wait) for the thread to reach it.
// See docs/architecture.md#state.
//
// Failure stays safe: if the thread cannot be started, hashes are computed here as before; if it
// stops, every hash it held answers a digest that equals no SHA-256, so the tail takes the file as
// rewritten and reads it again (with a hash made here).
import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { PARSE_SLICE_BYTES } from '../files/files';

/**
 * Bytes of one shared slot: a slice of a whole read (open-session.ts parses a read piece a slice at
 * a time and tells the tail each one as it goes), so a slice fills one slot.
 */
const SLOT_BYTES = PARSE_SLICE_BYTES;
/**
 * Slots in the ring. The thread hashes a slot in well under a millisecond and the server parses a
 * slice in several, so each slice finds a free slot; a larger add (an archive, a re-read to compare)
 * waits for slots and goes at the thread's pace. 2 MB of shared memory for the process.
 */
const SLOT_COUNT = 4;
/** How long the server waits for the thread before it takes it as stopped. */
const THREAD_TIMEOUT_MS = 60_000;

// The control words, in one shared Int32Array: a flag per slot (1 while the thread still needs its
// bytes), then the number of the last digest written, then the bytes hashed so far (two words: low,
// high), for the tests.
const DIGEST_DONE = SLOT_COUNT;
const HASHED_LOW = SLOT_COUNT + 1;
const HASHED_HIGH = SLOT_COUNT + 2;
const CONTROL_WORDS = SLOT_COUNT + 3;

/** What the thread runs (plain JavaScript: a worker started from a string, the bundle stays one file). */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const control = new Int32Array(workerData.control);
const slots = new Uint8Array(workerData.slots);
const digestBytes = new Uint8Array(workerData.digest);
const hashes = new Map();
parentPort.on('message', (message) => {
  if (message.op === 'open') hashes.set(message.id, createHash('sha256'));
  else if (message.op === 'add') {
    const start = message.slot * ${SLOT_BYTES};
    hashes.get(message.id).update(slots.subarray(start, start + message.length));
    const low = (control[${HASHED_LOW}] >>> 0) + message.length;
    control[${HASHED_HIGH}] += Math.floor(low / 4294967296);
    control[${HASHED_LOW}] = low >>> 0;
    Atomics.store(control, message.slot, 0);
    Atomics.notify(control, message.slot);
  } else if (message.op === 'digest') {
    digestBytes.set(hashes.get(message.id).copy().digest());
    Atomics.store(control, ${DIGEST_DONE}, message.serial);
    Atomics.notify(control, ${DIGEST_DONE});
  } else if (message.op === 'close') hashes.delete(message.id);
});
`;

/** The one hashing thread of the process, with its shared slots. */
class HashThread {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  private readonly slots = new Uint8Array(new SharedArrayBuffer(SLOT_BYTES * SLOT_COUNT));
  private readonly digestBytes = new Uint8Array(new SharedArrayBuffer(32));
  private readonly worker: Worker;
  private nextSlot = 0;
  private nextId = 0;
  private digestSerial = 0;
  /** Set once the thread has stopped or failed to answer: every hash it held is lost. */
  stopped = false;
  /** Tells the thread to forget a hash once its RunningHash is collected. */
  private readonly forget = new FinalizationRegistry<number>((id) => this.post({ op: 'close', id }));

  constructor() {
    this.worker = new Worker(THREAD_SOURCE, {
      eval: true,
      // It allocates next to nothing (the bytes are in the shared slots): a small heap keeps the
      // thread's memory to about 8 MB.
      resourceLimits: {
        maxYoungGenerationSizeMb: 1,
        maxOldGenerationSizeMb: 8,
        codeRangeSizeMb: 4,
        stackSizeMb: 1,
      },
      workerData: { control: this.control.buffer, slots: this.slots.buffer, digest: this.digestBytes.buffer },
    });
    // The thread never keeps the server running, and a failure of it is a lost hash, not a crash.
    this.worker.unref();
    this.worker.on('error', () => (this.stopped = true));
    this.worker.on('exit', () => (this.stopped = true));
  }

  open(owner: object): number {
    const id = ++this.nextId;
    this.post({ op: 'open', id });
    this.forget.register(owner, id);
    return id;
  }

  add(id: number, bytes: Uint8Array): void {
    for (let from = 0; from < bytes.length && !this.stopped; from += SLOT_BYTES) {
      const part = bytes.subarray(from, from + SLOT_BYTES);
      const slot = this.nextSlot;
      this.nextSlot = (slot + 1) % SLOT_COUNT;
      // The slot's last bytes must be hashed before they are overwritten.
      if (!this.waitWhile(slot, 1)) return;
      this.slots.set(part, slot * SLOT_BYTES);
      Atomics.store(this.control, slot, 1);
      this.post({ op: 'add', id, slot, length: part.length });
    }
  }

  /** The SHA-256 of hash `id` so far, or undefined when the thread has stopped. */
  digest(id: number): Buffer | undefined {
    const serial = ++this.digestSerial;
    const before = Atomics.load(this.control, DIGEST_DONE);
    this.post({ op: 'digest', id, serial });
    while (!this.stopped && Atomics.load(this.control, DIGEST_DONE) !== serial) {
      if (!this.waitWhile(DIGEST_DONE, before)) break;
    }
    return this.stopped ? undefined : Buffer.from(this.digestBytes);
  }

  /** Bytes the thread has hashed since it started (for tests). */
  get hashedBytes(): number {
    return (
      (Atomics.load(this.control, HASHED_HIGH) >>> 0) * 4294967296 +
      (Atomics.load(this.control, HASHED_LOW) >>> 0)
    );
  }

  /** Stops the thread (tests: what a crash of it leaves). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }

  /** Waits while control word `index` holds `value`; false (and stopped) when the thread does not answer. */
  private waitWhile(index: number, value: number): boolean {
    while (Atomics.load(this.control, index) === value) {
      if (this.stopped) return false;
      if (Atomics.wait(this.control, index, value, THREAD_TIMEOUT_MS) === 'timed-out') {
        this.stopped = true;
        return false;
      }
    }
    return true;
  }

  private post(message: object): void {
    if (!this.stopped) this.worker.postMessage(message);
  }
}

let thread: HashThread | undefined;
let threadFailed = false;

/** The process's hashing thread, started on first use; undefined when it cannot be started. */
function hashThread(): HashThread | undefined {
  if (thread?.stopped) thread = undefined;
  if (!thread && !threadFailed) {
    try {
      thread = new HashThread();
    } catch {
      threadFailed = true;
    }
  }
  return thread;
}

/**
 * Starts the hashing thread with the server: it serves every session the process opens, so its
 * memory (the thread's heap and the slots, about 10 MB) is the process's, not a session's.
 */
export function startHashThread(): void {
  hashThread();
}

/** What a hash whose thread stopped answers: no SHA-256 is 64 characters of "x". */
const LOST_DIGEST = 'x'.repeat(64);

/** Running SHA-256 of a file's bytes, to notice a rewrite that keeps the size. */
export class RunningHash {
  private readonly thread = hashThread();
  private readonly id: number | undefined;
  /** Hashed here when no thread could be started. */
  private readonly local: Hash | undefined;

  constructor() {
    if (this.thread) this.id = this.thread.open(this);
    else this.local = createHash('sha256');
  }

  add(bytes: Uint8Array): void {
    if (this.local) this.local.update(bytes);
    else this.thread!.add(this.id!, bytes);
  }

  /** The hash of everything added so far, in hex (more may be added after). */
  digest(): string {
    if (this.local) return this.local.copy().digest('hex');
    return this.thread!.digest(this.id!)?.toString('hex') ?? LOST_DIGEST;
  }
}

/** For tests: the running thread's byte count, and a way to stop it as a crash would. */
export const hashThreadForTests = {
  hashedBytes: (): number => hashThread()?.hashedBytes ?? 0,
  stop: async (): Promise<void> => {
    await hashThread()?.stop();
  },
};
