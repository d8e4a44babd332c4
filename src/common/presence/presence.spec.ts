import { MemoryPresenceStore, Presence } from './presence';

describe('Presence', () => {
  it('an account is seen now while this instance holds a connection of it, and at its last close after', async () => {
    let now = 1000;
    const presence = new Presence(new MemoryPresenceStore(), () => now);
    try {
      presence.opened(7);
      presence.opened(7);
      now = 2000;
      presence.closed(7);
      now = 3000;
      expect(await presence.lastSeen([7, 8])).toEqual(new Map([[7, 3000]]));
      presence.closed(7);
      now = 9000;
      await Promise.resolve();
      expect(await presence.lastSeen([7, 8])).toEqual(new Map([[7, 3000]]));
    } finally {
      presence.stop();
    }
  });
});
