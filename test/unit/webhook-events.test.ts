/**
 * The webhook event vocabulary's rules (decisions §15, lib/net/webhooks.ts): which events a campaign is sent (its
 * `webhook_events`, else the default list without the opt-in video.ready; nothing without a webhook_url), and
 * video.ready's event id, derived from the video so one video never makes two events.
 */
import { DEFAULT_WEBHOOK_EVENTS, videoReadyEventId, wantsEvent } from '../../lib/net/webhooks';

const VIDEO = '3f9c2a71-5d0e-4b8a-9c61-2e7f4d1a8b90';

test('a campaign is sent the events it listed, or the default list, which leaves video.ready out; nothing without a URL', () => {
  const url = 'https://hooks.example.com/x';
  expect(DEFAULT_WEBHOOK_EVENTS).toEqual(['campaign.completed', 'campaign.failed', 'video.updated']);
  expect(wantsEvent({ webhook_url: url, webhook_events: null }, 'campaign.completed')).toBe(true);
  expect(wantsEvent({ webhook_url: url, webhook_events: null }, 'video.ready')).toBe(false);
  expect(wantsEvent({ webhook_url: url, webhook_events: ['video.ready'] }, 'video.ready')).toBe(true);
  expect(wantsEvent({ webhook_url: url, webhook_events: ['video.ready'] }, 'campaign.completed')).toBe(false);
  expect(wantsEvent({ webhook_url: null, webhook_events: ['video.ready'] }, 'video.ready')).toBe(false);
});

test("video.ready's event id is evt_ and a UUID, the same for the same video and revision, another for another", () => {
  const id = videoReadyEventId(VIDEO);
  expect(id).toMatch(/^evt_[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(videoReadyEventId(VIDEO.toUpperCase())).toBe(id);
  expect(videoReadyEventId(VIDEO, 1)).toBe(id);
  expect(videoReadyEventId(VIDEO, 2)).not.toBe(id);
  expect(videoReadyEventId('0b7e2c1d-9a4f-4e3b-8c2d-5f6a7b8c9d0e')).not.toBe(id);
  // Its own namespace: never the video's id itself, so it cannot meet an edit's `evt_<edit id>`.
  expect(id).not.toBe(`evt_${VIDEO}`);
});
