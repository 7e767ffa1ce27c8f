import { singleton } from '../../registry';
import { getRuntime } from '../../runtime';
import { FileService } from './file-service';

/** The file service singleton (registry-backed, like the services in `server/services/index.ts`). */
export function fileService(): FileService {
  return singleton('service.files', () => new FileService(getRuntime()));
}
