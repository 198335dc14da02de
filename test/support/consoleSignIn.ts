import type { Page } from 'puppeteer-core';
import type { CommandDependencies } from '../../src/commands/commandHandler.ts';
import { issueConsoleLink } from '../../src/commands/consoleLinkCommands.ts';
import { testPrincipal } from './testRuntime.ts';

/** Signs `page` in to the console at `consoleBase` as `operator`, through a console link, as `seqflow console link` gives one. */
export async function signInToConsole(page: Page, consoleBase: string, commands: CommandDependencies, operator = 'browser-test'): Promise<void> {
  const { token } = await issueConsoleLink(commands, { operator }, testPrincipal);
  await page.goto(`${consoleBase}/login?token=${token}`);
  await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button')]);
}
