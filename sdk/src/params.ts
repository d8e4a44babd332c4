/** Drops undefined values (the server refuses unknown or ill-typed params). */
export function clean<T extends object>(params: T): T {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as T;
}
