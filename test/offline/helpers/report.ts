/** In a child process of ./child.ts: send `message` to the parent (a JSON line on stdout; synchronous on a pipe, so it is out before the next statement runs). */
export function report(message: { readonly type: string; readonly [key: string]: unknown }): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
