import { singleton } from '../../registry';
import { getRuntime } from '../../runtime';
import { sandboxService } from '../index';
import { GitService, gitLimitsFromEnv } from './git-service';

export { GitService } from './git-service';
export * as gitArgv from './argv';

/** The git service singleton, shared by the route bundles through the registry. */
export function gitService(): GitService {
  return singleton('service.git', () => new GitService(sandboxService(), getRuntime(), gitLimitsFromEnv()));
}
