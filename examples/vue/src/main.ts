import { createApp } from 'vue';
// The demo's stylesheet (the examples show the same grid), and the detail pane's.
import '../../../demo/public/style.css';
import '../../shared/examples.css';
import App from './App.vue';

createApp(App).mount('#app');
