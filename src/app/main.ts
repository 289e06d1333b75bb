/** Page entry: registers the custom elements; `index.html` places `<nexus-app>`. */
import './vite-worker.ts';
import './elements/nexus-app.ts';
