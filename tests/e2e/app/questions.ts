/** What the e2e tests ask the scripted harness; its script answers exactly these. */
export const QUESTIONS = {
  weather: 'What is the weather in Chennai right now?',
  paris: 'How warm is it in Paris?',
  markup: 'Show me the tricky markup.',
  email: 'Email Bob that I am running late.',
  research: 'Who won the 2022 World Cup?',
  mcpSum: 'Add 4000 and 2 with the notes server.',
  mcpDirect: 'Add 1000 and 234 with the direct server.',
  mcpDelete: 'Delete note 7 from my notes.',
  mcpSlow: 'Echo hello slowly.',
  mcpAskName: 'Ask for my name with the features server.',
  mcpSummarize: 'Summarize the day with the features server.',
  mcpCount: 'Count to three with the features server.',
  mcpAttached: 'What does the attached note say?',
  mcpOslo: 'What is the weather in Oslo with the features server?',
  mcpPay: 'Pay my bill with the features server.',
  longLines: 'Show me the long link and the long code.',
  hostileMarkdown: 'Show me the markdown that freezes parsers.',
} as const;

/** A message of about 3,000 tokens (as the scripted engine counts them): three outgrow the harness model's 8,192-token context. */
export function longNote(n: number): string {
  return `Long note ${n}: ${'the river runs past the old mill '.repeat(220)}`;
}

/** The sources the fake proxy reports for the research question. */
export const FAKE_SOURCES = [
  { n: 1, url: 'https://example.org/final', title: '2022 FIFA World Cup final', date: '2022-12-18' },
  { n: 2, url: 'https://example.org/final/penalties', title: 'Penalty shoot-out' },
] as const;
