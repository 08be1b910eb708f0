/**
 * The app's browser entry: runs the scenario for each job given in the page's hash (JSON), then
 * shows the reports as JSON in `#report` (or what went wrong in `#error`).
 */
import { parseJobs, runAll } from './scenario.js';

function show(id: 'report' | 'error', text: string): void {
  const out = document.createElement('pre');
  out.id = id;
  out.textContent = text;
  document.body.append(out);
}

try {
  show('report', JSON.stringify(await runAll(parseJobs(decodeURIComponent(location.hash.slice(1))))));
} catch (error) {
  show('error', error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}
