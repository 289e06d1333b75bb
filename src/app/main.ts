/** Page entry: registers the custom elements; `index.html` places `<nexus-app>`. */
import '../worker/vite-worker.ts';
import './nexus-app.ts';
