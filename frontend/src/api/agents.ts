// SettingsService's agent-file methods (app/useragents.go): Settings → Agents lists the
// built-in agents and the user's agent files of <data-dir>/agents/ (Markdown with a YAML
// front matter: name, description, tools, model, max_rounds; the body is the agent's
// instructions), reads, saves, creates and deletes them. Each function is one bound call
// through callService plus the normalization of its answer.

import * as SettingsService from '../../wailsjs/go/app/SettingsService';
import type { app } from '../../wailsjs/go/models';
import { callService, asString as s, asNumber as n, asObject as o, asList as list, asStrings, type Model } from './call';

/** Runs the bound call SettingsService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('SettingsService', method, fn);

/**
 * One problem of an agent file (app.AgentProblem): `line` is the file's 1-based line (0 for
 * the file as a whole), `field` the front-matter field it concerns ("" when none), `text`
 * the whole problem as one line ("reviewer.md:3: tools: unknown tool \"foo\"").
 */
export type AgentProblem = Model<app.AgentProblem>;

/** A built-in agent (app.AgentView), shown read-only: its tools and tool-round limit. */
export type BuiltInAgent = Model<app.AgentView>;

/**
 * One agent file (app.UserAgentView): the file name, what it defines as far as it could be
 * read (`model` "inherit" = the sub-agents' model), and its problems; a file with problems
 * is skipped by runs until they are fixed.
 */
export type UserAgent = Omit<Model<app.UserAgentView>, 'problems'> & { problems: AgentProblem[] };

/**
 * Settings → Agents (app.AgentsView): the agents folder, the built-in agents, the user's
 * agent files in file-name order, and the built-in tools a file may list (MCP tools,
 * mcp__<server>__<tool>, too).
 */
export interface AgentsOverview {
  dir: string;
  built_in: BuiltInAgent[];
  user: UserAgent[];
  tools: string[];
}

/** Normalizes a problem as Go sent it. */
function problemOf(v: unknown): AgentProblem {
  const x = o(v);
  return { file: s(x.file), line: n(x.line), field: s(x.field), message: s(x.message), text: s(x.text) || s(x.message) };
}

/** Normalizes a list of problems (null from Go = none). */
const problemsOf = (v: unknown): AgentProblem[] => list(v).map(problemOf);

/**
 * Reads Settings → Agents (SettingsService.UserAgents): the files as they are now. A
 * backend without agent files rejects with code "unsupported".
 */
export async function getAgents(): Promise<AgentsOverview> {
  const x = o(await call('UserAgents', () => SettingsService.UserAgents()));
  return {
    dir: s(x.dir),
    built_in: list(x.built_in).map((v) => {
      const a = o(v);
      return { name: s(a.name), description: s(a.description), tools: asStrings(a.tools), max_rounds: n(a.max_rounds) };
    }),
    user: list(x.user).map((v) => {
      const a = o(v);
      return {
        file: s(a.file),
        name: s(a.name),
        description: s(a.description),
        tools: asStrings(a.tools),
        model: s(a.model) || 'inherit',
        max_rounds: n(a.max_rounds),
        problems: problemsOf(a.problems),
      };
    }),
    tools: asStrings(x.tools),
  };
}

/** The text of the agent file `file` (SettingsService.ReadUserAgent); rejects with not_found when it is gone. */
export async function readAgentFile(file: string): Promise<string> {
  return s(await call('ReadUserAgent', () => SettingsService.ReadUserAgent(file)));
}

/**
 * Saves `content` as the agent file `file` (SettingsService.SaveUserAgent) and resolves with
 * its problems, each with its line ([] when the agent is valid). Content with problems is
 * saved too (nothing typed is lost); runs skip the file until it is fixed. Rejects with
 * invalid_request for a file name that is not an agent file's or content over 256 KB.
 */
export async function saveAgentFile(file: string, content: string): Promise<AgentProblem[]> {
  return problemsOf(await call('SaveUserAgent', () => SettingsService.SaveUserAgent(file, content)));
}

/**
 * Creates `<name>.md` from the template (SettingsService.NewUserAgent) and resolves with the
 * file name. Rejects with code "validation" (fields.name says why) for a name the name field
 * refuses, "conflict" when the file or an agent of that name exists.
 */
export async function createAgentFile(name: string): Promise<string> {
  return s(await call('NewUserAgent', () => SettingsService.NewUserAgent(name)));
}

/** Deletes the agent file `file` (SettingsService.DeleteUserAgent); rejects with not_found when it is gone. */
export async function deleteAgentFile(file: string): Promise<void> {
  await call('DeleteUserAgent', () => SettingsService.DeleteUserAgent(file));
}
