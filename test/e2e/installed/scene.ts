// What the installed suite's steps share (test/e2e/installed.test.ts makes it in its beforeAll):
// the application namespace, the real node, the git servers and the project's push webhook.
import type { RealNode } from '../../../scripts/cluster/real-node.ts';
import type { Gitea } from '../../support/gitea.ts';
import type { Database, GitServer } from '../support/host-services.ts';

export interface InstalledScene {
  ns: { name: string };
  node: RealNode;
  /** The plain git server the project starts on. */
  git: GitServer;
  gitea: Gitea;
  /** The MariaDB the environments back up. */
  mariadb: Database;
  /** The project's push webhook through the Ingress, and its secret. */
  hookUrl: string;
  secret: string;
}
