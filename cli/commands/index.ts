// Every command of kubectl slipway, in the order --help lists them.
import { buildCommand } from './build.ts';
import { checkCommand } from './check.ts';
import { eventsCommand } from './events.ts';
import type { Command } from './command.ts';
import { getCommand } from './get.ts';
import { historyCommand } from './history.ts';
import { hookCommand } from './hook.ts';
import { logsCommand } from './logs.ts';
import { noticeCommand } from './notice.ts';
import { previewCommand } from './preview.ts';
import { promoteCommand } from './promote.ts';
import { promotionCommand } from './promotion.ts';
import { reconcileCommand } from './reconcile.ts';
import { rollbackCommand } from './rollback.ts';
import { statsCommand } from './stats.ts';
import { statusCommand } from './status.ts';
import { resumeCommand, suspendCommand } from './suspend.ts';
import { treeCommand } from './tree.ts';
import { versionCommand } from './version.ts';
import { waitCommand } from './wait.ts';

export type { Command };

export const commands: readonly Command[] = [
  hookCommand,
  getCommand,
  buildCommand,
  logsCommand,
  waitCommand,
  rollbackCommand,
  promoteCommand,
  promotionCommand,
  statsCommand,
  suspendCommand,
  resumeCommand,
  reconcileCommand,
  treeCommand,
  eventsCommand,
  historyCommand,
  previewCommand,
  noticeCommand,
  statusCommand,
  checkCommand,
  versionCommand,
];
