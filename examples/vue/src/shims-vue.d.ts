// What TypeScript knows of a .vue file (Vite's Vue plugin compiles them).
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
