/**
 * The page at `/`: an analytics app over the endpoint's JSON read side (Preact components, ECharts
 * charts), updated live while bots talk.
 *
 * Page URL parameters: `key` (one of the endpoint's API keys, needed when it listens beyond
 * loopback; sent as a bearer header), `images=remote` (load images from records). What is shown —
 * the view, the filter, the chosen conversation or user — is kept in the URL's hash (see state.ts).
 */
import './style.css';
import { h, render } from 'preact';
import { ReadApi } from './api.js';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) {
  const params = new URLSearchParams(location.search);
  render(h(App, { api: new ReadApi(params.get('key')), remoteImages: params.get('images') === 'remote' }), root);
}
