import { createRoot } from 'react-dom/client';
import { OrdersGrid } from './OrdersGrid.js';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root');
createRoot(container).render(<OrdersGrid />);
