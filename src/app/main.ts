/** Page entry: registers the custom elements; `index.html` places `<nexus-app>`. */
import './nexus-app.ts';
