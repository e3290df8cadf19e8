// Imported first by main.tsx: asks the backend for what the first screen shows while the rest
// of the bundle is still being evaluated (ES modules run in import order), so the answer is
// there when React renders. See chat/first-list.ts.
import { askFirstList } from './chat/first-list';

askFirstList();
