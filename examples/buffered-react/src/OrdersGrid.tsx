import { useEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useStore } from 'rest-proxy/react';
import { BufferedStore, isPlaceholder } from 'rest-proxy/buffered';
import { Order } from './models.js';

const orders = new BufferedStore({ model: Order, pageSize: 100, sorters: [{ property: 'date', direction: 'DESC' }] });

export function OrdersGrid() {
  const { rows, start, count } = useStore(orders);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count, getScrollElement: () => parent.current, estimateSize: () => 32, overscan: 5 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 49;
  useEffect(() => orders.setVisibleRange(first, last), [first, last]);
  return (
    <div ref={parent} style={{ height: 600, overflow: 'auto' }}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const row = rows[item.index - start];
          return (
            <div key={item.key} style={{ position: 'absolute', top: item.start, height: 32 }}>
              {row === undefined || isPlaceholder(row)
                ? '…'
                : <input aria-label={`order ${item.index}`} value={row.get('title')} onChange={(event) => row.set('title', event.target.value)} onBlur={() => void row.save()} />}
            </div>
          );
        })}
      </div>
    </div>
  );
}
