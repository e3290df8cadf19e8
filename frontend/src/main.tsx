import './timeline-start'; // first of all: marks the moment the bundle starts to run
import './start-loads'; // first: asks for the conversation list while the rest evaluates
import { StrictMode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import App from './App';
import { markStep } from './launchMark';
import { firstListSettled } from './chat/first-list';
import './i18n/i18n'; // the UI's language, set before the first render
import { syncLanguageFromBackend } from './i18n/language';
import { guardNavigation } from './markdown/navigation';
import { batchRunEvents, isBrowserMode } from './api/runtime';
import { installTooltips } from './layout/tooltips';
import { adoptReactEffectTiming } from './shared/effect-timing';
import './style.css';
import './chat/conversation.css';

markStep('bundle evaluated'); // every static import has run (launchMark.ts: the start-up timeline)
// Effects (useEffect) run when React would run them, not a frame later (shared/effect-timing.ts).
adoptReactEffectTiming();
if (!isBrowserMode()) batchRunEvents(); // the window's run events reach the page in batches, one render each (api/runtime.ts)
// Before the app renders: nothing on the page may navigate the window away from the app.
guardNavigation();
// The app draws its tooltips: a click that opens a dialog leaves none over it.
installTooltips();
// The language stored locally paints first; the one in config.json wins when it differs.
void syncLanguageFromBackend();

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// The first render waits for the conversation list asked for at the start (at most 300 ms),
// so that the first paint shows it rather than an empty list and a second render.
// The render runs at once, in this task (flushSync), rather than in a task of React's
// scheduler queued behind whatever the page has pending (10-35 ms measured at start-up).
void firstListSettled(300).then(() => {
  const root = createRoot(container);
  markStep('first render called');
  flushSync(() => {
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
});
