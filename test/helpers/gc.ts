/** A real garbage collector for tests that observe collection with WeakRefs (Node only). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The garbage collector: the one --expose-gc gives, else one exposed now (as jest's leak detector does). */
function collector(): () => void {
  const exposed: unknown = Reflect.get(globalThis, 'gc');
  if (typeof exposed === 'function') return () => Reflect.apply(exposed, undefined, []);
  setFlagsFromString('--expose-gc');
  const made: unknown = runInNewContext('gc');
  if (typeof made !== 'function') throw new Error('no garbage collector to call');
  return () => Reflect.apply(made, undefined, []);
}
export const gc = collector();

/** Collect until every reference is cleared, or give up after a bounded number of rounds; returns how many are left. */
export async function collected(refs: readonly WeakRef<object>[]): Promise<number> {
  for (let round = 0; round < 30 && refs.some((ref) => ref.deref() !== undefined); round++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    gc();
  }
  return refs.filter((ref) => ref.deref() !== undefined).length;
}
