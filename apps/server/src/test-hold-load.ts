import { pathExistsSync } from './files/files';

/**
 * For end-to-end tests only (set when CANOPY_TEST_HOLD_LOAD names a file): every whole read of a
 * session file stops after its first piece until that file exists, so a test can look at the page
 * while the server is still reading a session, then let it go on by creating the file; with it,
 * CANOPY_TEST_PIECE_BYTES sets the size of a piece (so a small session has more than one).
 * Reachable only through the server's environment, never from the network. Answers nothing otherwise.
 */
export function holdLoadFromEnv(env: NodeJS.ProcessEnv = process.env): {
  afterPiece?: (readSoFar: number) => Promise<void>;
  pieceBytes?: number;
} {
  const gate = env.CANOPY_TEST_HOLD_LOAD;
  if (!gate) return {};
  const pieceBytes = Number(env.CANOPY_TEST_PIECE_BYTES);
  return {
    afterPiece: holdAtFirstPiece(gate),
    ...(Number.isSafeInteger(pieceBytes) && pieceBytes > 0 ? { pieceBytes } : {}),
  };
}

function holdAtFirstPiece(gate: string): (readSoFar: number) => Promise<void> {
  let pieces = 0;
  return async () => {
    if (++pieces > 1 || pathExistsSync(gate)) return;
    await new Promise<void>((resolve) => {
      // Looked at until it appears (a test's own step, whenever it comes).
      const timer = setInterval(() => {
        if (!pathExistsSync(gate)) return;
        clearInterval(timer);
        resolve();
      }, 20);
    });
  };
}
