/**
 * Preloaded (`--import`) into every process the bench starts. The bench holds the write end of the
 * child's stdin and never writes to it, so end-of-input means the bench is gone (killed with -9,
 * crashed) without stopping us. Then we send ourselves SIGTERM, so the API server still runs its own
 * shutdown (closing LevelDB cleanly) and nothing outlives the bench.
 */
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.on('error', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
