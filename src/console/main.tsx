/** The console's entry: zod told not to try `eval` (the CSP forbids it), then the app rendered into `#app` of index.html. */
import { ZOD_CONFIG } from './jitless.js'
import { render } from 'preact'
import { App } from './app.js'
import './console.css'

if (ZOD_CONFIG.jitless !== true) throw new Error('zod must run without eval under the console’s CSP')
render(<App />, document.getElementById('app')!)
