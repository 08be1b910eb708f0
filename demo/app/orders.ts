/**
 * orders.html: a virtual grid over a million orders in a `BufferedStore`. The scroll box is as
 * tall as every row; on scroll the grid tells the store which rows are on screen
 * (`setVisibleRange`), and each snapshot of the store (`subscribe`) places the rows on screen. A
 * title edited and left saves its record (one PUT). The request log shows every read: one per page.
 */
import { Model, userMessage } from '../../src/index.js';
import { BufferedStore, isPlaceholder, type BufferedSnapshot, type Placeholder } from '../../src/buffered.js';
import { byId, h } from './dom.js';
import { LogPanel } from './logPanel.js';
import { RequestLog } from './requestLog.js';

/** One row of the grid, in pixels, and how many rows the box shows. */
const ROW = 24;
const SHOWN = 25;

export class Order extends Model<{ id: number; title: string; amount: number; date: string }> {
  static override fields = ['id', 'title', 'amount', 'date'];
}

const log = new RequestLog();
const orders = new BufferedStore({
  model: Order,
  proxy: { type: 'rest', url: '/api/orders', noCache: false, fetch: log.fetch, onRequest: log.onRequest, reader: { totalHeader: 'X-Total-Count' } },
  pageSize: 100,
});

const box = byId('orders-grid', HTMLDivElement);
const content = byId('orders-rows', HTMLDivElement);
const status = byId('orders-status', HTMLParagraphElement);
const alert = byId('orders-error', HTMLDivElement);
new LogPanel(byId('log', HTMLOListElement), byId('log-clear', HTMLButtonElement), log);

/** The element of each row on screen, by index. */
const shown = new Map<number, HTMLDivElement>();

function save(order: Order, input: HTMLInputElement): void {
  if (input.value === order.get('title')) return;
  order.set('title', input.value);
  alert.textContent = '';
  order.save().catch((error: unknown) => {
    alert.textContent = userMessage(error);
  });
}

function rowElement(index: number, row: Order | Placeholder): HTMLDivElement {
  if (isPlaceholder(row)) return h('div', { class: 'vrow placeholder', 'data-index': index }, h('span', { class: 'num' }, String(index + 1)), '…');
  const input = h('input', { type: 'text', value: row.get('title'), 'aria-label': `title of order ${row.get('id')}` });
  input.addEventListener('change', () => save(row, input));
  return h('div', { class: row.dirty ? 'vrow dirty' : 'vrow', 'data-index': index, 'data-id': row.get('id') },
    h('span', { class: 'num' }, String(row.get('id'))), input, h('span', { class: 'num' }, row.get('amount').toFixed(2)), h('span', {}, row.get('date')));
}

/** Place the rows of the snapshot; a row whose input has the focus is kept as it is. */
function render({ start, rows, count, error }: BufferedSnapshot<Order>): void {
  content.style.height = `${count * ROW}px`;
  const next = new Map<number, HTMLDivElement>();
  rows.forEach((row, at) => {
    const index = start + at;
    const old = shown.get(index);
    const keep = old !== undefined && old.contains(document.activeElement) && !isPlaceholder(row) && old.dataset.id === String(row.get('id'));
    const element = keep ? old : rowElement(index, row);
    element.style.top = `${index * ROW}px`;
    element.style.height = `${ROW}px`;
    if (element !== old) {
      old?.remove();
      content.append(element);
    }
    next.set(index, element);
  });
  for (const [index, element] of shown) if (!next.has(index)) element.remove();
  shown.clear();
  for (const [index, element] of next) shown.set(index, element);
  showStatus();
  if (error !== undefined) alert.textContent = userMessage(error);
}

/** What is on screen, how many reads were sent, how many pages are held (after each snapshot and each request). */
function showStatus(): void {
  const { start, rows, count, total, loading } = orders.getSnapshot();
  const reads = log.entries.filter((entry) => entry.method === 'GET').length;
  status.textContent = `rows ${start + 1} to ${start + rows.length} of ${(total ?? count).toLocaleString('en')}${loading ? ', loading' : ''} · ${reads} reads · ${orders.getCachedPages().length} pages cached`;
}

function onScroll(): void {
  const first = Math.floor(box.scrollTop / ROW);
  orders.setVisibleRange(first, first + SHOWN - 1);
}

orders.subscribe(render);
log.subscribe(showStatus);
box.addEventListener('scroll', onScroll);
onScroll();
