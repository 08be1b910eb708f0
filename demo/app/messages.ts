import { BatchError, ProxyError, userMessage } from '../../src/index.js';

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

  /**
   * Say what went wrong: a sentence for the user (userMessage), then, folded, the library's
   * messages for developers (the verb, the url, the status), one per failed request.
   */
  error(lead: string, error: unknown): void {
    const title = document.createElement('strong');
    title.textContent = lead;
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'Details for developers';
    const list = document.createElement('ul');
    for (const each of error instanceof BatchError ? error.errors : [error]) {
      const item = document.createElement('li');
      item.textContent = each instanceof Error ? each.message : String(each);
      list.append(item);
    }
    details.append(summary, list);
    this.errorRegion.replaceChildren(title, ' ', userMessage(error), details);
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

/** True for a load that a newer one replaced: not a failure to show. */
export function isAbort(error: unknown): boolean {
  return error instanceof ProxyError && error.kind === 'abort';
}
