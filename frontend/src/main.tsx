import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import { markStep } from './launchMark';
import './i18n/i18n'; // the UI's language, set before the first render
import { syncLanguageFromBackend } from './i18n/language';
import { guardNavigation } from './markdown/navigation';
import { installTooltips } from './layout/tooltips';
import './style.css';
import './chat/conversation.css';

markStep('bundle evaluated'); // every static import has run (launchMark.ts: the start-up timeline)
// Before the app renders: nothing on the page may navigate the window away from the app.
guardNavigation();
// The app draws its tooltips: a click that opens a dialog leaves none over it.
installTooltips();
// The language stored locally paints first; the one in config.json wins when it differs.
void syncLanguageFromBackend();

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
markStep('first render called');
