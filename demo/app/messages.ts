import { BatchError, ProxyError } from '../../src/index.js';

/** The error (role="alert") and status (role="status") live regions of the page. */
export class Messages {
  constructor(
    private readonly errorRegion: HTMLElement,
    private readonly statusRegion: HTMLElement,
    private readonly dismissButton: HTMLButtonElement,
  ) {
    dismissButton.addEventListener('click', () => this.clearError());
    this.clearError();
  }

  /** Say what went wrong, in the library's words. */
  error(lead: string, error: unknown): void {
    this.errorRegion.replaceChildren();
    const title = document.createElement('strong');
    title.textContent = lead;
    if (error instanceof BatchError && error.errors.length > 1) {
      // "2 of 3 operations failed: A; B": the summary, then each operation's message on its own line.
      const summary = error.message.split(': ')[0] ?? error.message;
      this.errorRegion.append(title, ' ', `${summary}:`);
      const list = document.createElement('ul');
      for (const each of error.errors) {
        const item = document.createElement('li');
        item.textContent = each.message;
        list.append(item);
      }
      this.errorRegion.append(list);
    } else {
      this.errorRegion.append(title, ' ', describe(error));
    }
    this.errorRegion.classList.add('has-error');
    this.dismissButton.hidden = false;
  }

  clearError(): void {
    this.errorRegion.replaceChildren();
    this.errorRegion.classList.remove('has-error');
    this.dismissButton.hidden = true;
  }

  status(text: string): void {
    this.statusRegion.textContent = text;
  }
}

/** The message of a ProxyError, a BatchError or any other error. */
export function describe(error: unknown): string {
  if (error instanceof BatchError || error instanceof ProxyError || error instanceof Error) return error.message;
  return String(error);
}

/** True for a load that a newer one replaced: not a failure to show. */
export function isAbort(error: unknown): boolean {
  return error instanceof ProxyError && error.kind === 'abort';
}
