import { describe, expect, it } from 'vitest';
import { NO_GROUP, groupQuestion, toolGroups } from './tool-groups.ts';
import { outside } from '../shared/outside-text.ts';

describe('toolGroups', () => {
  it('uses the groups a tools.js declares', () => {
    expect(
      toolGroups([
        { name: 'set_lights', group: 'smart home' },
        { name: 'lock_door', group: 'smart home' },
        { name: 'send_email', group: 'mail' },
      ]),
    ).toEqual([
      { name: 'smart home', tools: ['set_lights', 'lock_door'] },
      { name: 'mail', tools: ['send_email'] },
    ]);
  });

  it('derives groups from the topic word names share, past their verbs and plurals', () => {
    const groups = toolGroups(
      ['create_event', 'list_events', 'cancelEvent', 'send_email', 'search_email', 'get_weather', 'disk_usage'].map((name) => ({ name })),
    );
    expect(groups).toEqual([
      { name: 'event', tools: ['create_event', 'list_events', 'cancelEvent'] },
      { name: 'email', tools: ['send_email', 'search_email'] },
      { name: 'weather', tools: ['get_weather'] },
      { name: 'disk', tools: ['disk_usage'] },
    ]);
  });

  it('asks with each group and a few of its tools in plain words, none always possible', () => {
    const question = groupQuestion([{ name: 'mail', tools: ['send_email', 'search_email'] }]);
    expect(question).toContain(`- ${outside('mail')}: send email, search email`);
    expect(question).toContain(`or ${NO_GROUP} if no kind fits`);
  });
});
