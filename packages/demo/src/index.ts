// The bundled demo sessions: shown when no agent session folder exists, and used by the start command's
// terminal outline, the e2e tests and the docs. They are generated through session-core's SessionManager
// (never copied from fixtures), so they are always in the format session-core writes. This package is
// pure: it returns file names and contents; the server writes them (apps/server/src/files/demo.ts).
export { buildDemoSessions as demoSessions, DEMO_FILE_NAMES } from './sessions';
export type { DemoSession, DemoSessionOptions } from './sessions';
