// Typed wrapper over ArtifactService.RevealExport: the exported notice's "Show in folder"
// (issue 10, item 4). Like api.ts, it rejects with an ApiError.

import * as ArtifactService from '../wailsjs/go/app/ArtifactService';
import { callService } from './api-call';

/**
 * Opens the folder holding a file that Export saved (its `saved_path`) in the system's
 * file manager. The backend accepts only paths it exported in this session; browser mode
 * refuses the call (desktop_only), and the page shows the action only in the window.
 */
export async function revealExport(savedPath: string): Promise<void> {
  await callService('ArtifactService', 'RevealExport', () => ArtifactService.RevealExport(savedPath));
}
