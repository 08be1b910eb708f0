// The model of the grid of docs/buffered.md: orders, read page by page from /orders (the total in X-Total-Count).
import { Model } from 'rest-proxy';

export class Order extends Model<{ id: number; title: string; date: string }> {
  static override fields = ['id', 'title', 'date'];
  static override proxy = { type: 'rest', url: '/orders', reader: { totalHeader: 'X-Total-Count' } };
}
