/**
 * A plain virtual grid over a BufferedStore (React, no virtualizer library): a scroll container
 * whose height is the store's count, the rows of the visible snapshot placed where they belong,
 * `setVisibleRange` from the scroll handler; each row's title editable, saved on Enter.
 */
import { createElement as h, useEffect, useRef, type ChangeEvent, type KeyboardEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { Model } from '../../../src/index.js';
import { BufferedStore, isPlaceholder } from '../../../src/buffered.js';
import { useStore } from '../../../src/react.js';

class Order extends Model<{ id: number; title: string }> {
  static override fields = ['id', 'title'];
}

const ROW = 20;
const SHOWN = 20;
const orders = new BufferedStore({
  model: Order,
  proxy: { url: '/orders', noCache: false, reader: { totalHeader: 'X-Total-Count' } },
  pageSize: 100,
  leadingBufferZone: 100,
  trailingBufferZone: 0,
});
orders.setVisibleRange(0, SHOWN - 1);

function Grid() {
  const { rows, start, count, loading } = useStore(orders);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (element === null) return undefined;
    const onScroll = (): void => {
      const first = Math.floor(element.scrollTop / ROW);
      orders.setVisibleRange(first, first + SHOWN - 1);
    };
    element.addEventListener('scroll', onScroll);
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  const save = (event: KeyboardEvent<HTMLInputElement>, row: Order): void => {
    if (event.key === 'Enter') void row.save();
  };
  return h('div', { id: 'grid', ref: box, 'data-count': count, 'data-loading': String(loading), style: { height: ROW * SHOWN, overflow: 'auto', position: 'relative' } },
    h('div', { style: { height: count * ROW } },
      rows.map((row, at) => h('div', { key: isPlaceholder(row) ? `p${row.index}` : row.clientId, style: { position: 'absolute', top: (start + at) * ROW, height: ROW } },
        isPlaceholder(row)
          ? '…'
          : h('input', { 'aria-label': `row ${start + at}`, value: row.get('title'), onChange: (event: ChangeEvent<HTMLInputElement>) => row.set('title', event.target.value), onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => save(event, row) })))));
}

const root = document.getElementById('root');
if (root !== null) createRoot(root).render(h(Grid));
