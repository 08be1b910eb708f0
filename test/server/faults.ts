// Which fault (if any) a request gets: injected faults first, in order, then seeded chaos.
import type { ChaosOptions, Fault, FaultMatch, FaultType, RecordedRequest } from './types.js';

export const FAULT_TYPES: readonly FaultType[] = ['status', 'reset-before', 'reset-after', 'stall', 'delay', 'truncate', 'html', 'duplicate'];

const CHAOS_DEFAULT_TYPES: readonly FaultType[] = ['reset-before', 'reset-after', 'status', 'stall', 'truncate'];

export function matches(match: FaultMatch | undefined, req: Pick<RecordedRequest, 'method' | 'path' | 'url'>): boolean {
  if (!match) return true;
  if (match.method !== undefined) {
    const methods = (Array.isArray(match.method) ? match.method : [match.method]).map((m) => m.toUpperCase());
    if (!methods.includes(req.method.toUpperCase())) return false;
  }
  const { path } = match;
  if (path === undefined) return true;
  if (typeof path === 'string') return req.url.startsWith(path);
  path.lastIndex = 0; // a global RegExp keeps state between tests
  if (path.test(req.path)) return true;
  path.lastIndex = 0;
  return path.test(req.url);
}

/** mulberry32: tiny, fast, good enough for reproducible test chaos. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Pending {
  fault: Fault;
  remaining: number;
}

export class FaultPlan {
  private queue: Pending[] = [];
  private chaosOptions: ChaosOptions | null = null;
  private random: () => number = Math.random;

  inject<F extends Fault>(fault: F): F {
    this.queue.push({ fault, remaining: fault.times ?? 1 });
    return fault;
  }

  chaos(options: ChaosOptions | null): void {
    this.chaosOptions = options;
    this.random = seededRandom(options?.seed ?? 1);
  }

  reset(): void {
    this.queue = [];
    this.chaos(null);
  }

  /** Consumes and returns the fault for this request, or undefined. */
  take(req: Pick<RecordedRequest, 'method' | 'path' | 'url'>): Fault | undefined {
    const index = this.queue.findIndex((pending) => matches(pending.fault.match, req));
    const pending = this.queue[index];
    if (pending) {
      pending.remaining -= 1;
      if (pending.remaining <= 0) this.queue.splice(index, 1);
      return pending.fault;
    }
    return this.rollChaos(req);
  }

  private rollChaos(req: Pick<RecordedRequest, 'method' | 'path' | 'url'>): Fault | undefined {
    const options = this.chaosOptions;
    if (!options || !matches(options.match, req)) return undefined;
    // Always draw twice, so the n-th matching request gets the same fault for the same seed.
    const hit = this.random() < options.rate;
    const pick = this.random();
    const types = options.types && options.types.length > 0 ? options.types : CHAOS_DEFAULT_TYPES;
    if (!hit) return undefined;
    return chaosFault(types[Math.floor(pick * types.length)] ?? 'status', options);
  }
}

function chaosFault(type: FaultType, options: ChaosOptions): Fault {
  switch (type) {
    case 'status':
      return { type, status: options.status ?? 503, headers: options.headers ?? {} };
    case 'stall':
      return { type, ms: options.stallMs ?? 1000 };
    case 'delay':
      return { type, ms: options.delayMs ?? 50 };
    default:
      return { type };
  }
}
