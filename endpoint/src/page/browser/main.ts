/**
 * The page at `/`: an analytics app over the endpoint's JSON read side (Preact components, ECharts
 * charts), updated live while bots talk.
 *
 * Page URL parameter: `images=remote` (load images from records). A reader token is asked for in
 * the page when the endpoint needs one (sign-in.tsx), never taken from the URL: one left there by
 * an old link (`?key=`) is taken out of the address and history, unused. What is shown — the view,
 * the filter, the chosen conversation or user — is kept in the URL's hash (see state.ts).
 */
import './style.css';
import { h, render } from 'preact';
import { Root } from './sign-in.js';

const root = document.getElementById('app');
if (root) {
  const params = new URLSearchParams(location.search);
  if (params.has('key')) {
    params.delete('key');
    const search = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`);
  }
  render(h(Root, { remoteImages: params.get('images') === 'remote' }), root);
}
