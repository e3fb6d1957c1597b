/**
 * `answer`, or `otherwise` when it has not come within `waitMs`. Judged after the input already
 * waiting is read (setImmediate runs after the loop's socket reads): on a busy CPU the timer fires
 * late, and an answer sitting in the socket must win.
 */
export async function withinWait<T>(answer: Promise<T>, waitMs: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve(otherwise)), waitMs);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
