/** The demo server's own controls (not part of the API the proxy talks to). */

interface DemoState {
  failWrites: boolean;
}

function isDemoState(value: unknown): value is DemoState {
  return typeof value === 'object' && value !== null && 'failWrites' in value && typeof value.failWrites === 'boolean';
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${response.statusText}`);
  return response.json();
}

/** Whether the server simulates a failure (503 to every write). */
export async function getFailWrites(): Promise<boolean> {
  const state = await call('GET', '/demo/state');
  return isDemoState(state) && state.failWrites;
}

export async function setFailWrites(failWrites: boolean): Promise<void> {
  await call('PUT', '/demo/state', { failWrites });
}

/** Put the server's data back as it was at start. */
export async function resetData(): Promise<void> {
  await call('POST', '/demo/reset');
}
