import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The demo's stylesheet (the examples show the same grid), and the detail pane's.
import '../../../demo/public/style.css';
import '../../shared/examples.css';
import { App } from './App.js';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
