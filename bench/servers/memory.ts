/** The `memory` IPC answer shared by the bench's servers: full GC, then process.memoryUsage(). */
export async function memoryAfterGc(): Promise<NodeJS.MemoryUsage> {
  const gc = (global as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) gc?.();
  await new Promise((r) => setTimeout(r, 50));
  gc?.();
  return process.memoryUsage();
}
