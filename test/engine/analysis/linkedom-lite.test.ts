import { Event, EventTarget, parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { linkedomLite } from '../../../src/engine/analysis/extract/linkedom-lite.ts';

interface Dispatched {
  target: unknown;
  currentTarget: unknown;
  eventPhase: number;
  preventDefault(): void;
  stopImmediatePropagation(): void;
}
type Listener = ((event: Dispatched) => void) | { handleEvent(event: Dispatched): void };

/** The event methods of a node, as these tests call them. */
interface Target {
  addEventListener(type: string, listener: Listener, options?: { once?: boolean }): void;
  removeEventListener(type: string, listener: Listener): void;
  dispatchEvent(event: InstanceType<typeof Event>): boolean;
}

/** A parsed element and its parent, from a fresh document. */
function page() {
  const { document } = parseHTML('<html><body><div id="box"><p id="p">x</p></div></body></html>');
  return {
    document,
    p: document.getElementById('p') as unknown as Target,
    box: document.getElementById('box') as unknown as Target,
  };
}

describe("linkedom's nodes without a listener map each", () => {
  it('applies to the linkedom this package loads', () => {
    expect(linkedomLite).toBe(true);
  });

  it('keeps listeners working: bubbling, once, removal and stopImmediatePropagation', () => {
    const { p, box } = page();
    const seen: string[] = [];
    const onBox = () => seen.push('box');
    box.addEventListener('ping', onBox);
    p.addEventListener('ping', () => seen.push('p once'), { once: true });
    p.addEventListener('ping', { handleEvent: () => seen.push('p object') });
    p.dispatchEvent(new Event('ping', { bubbles: true }));
    p.dispatchEvent(new Event('ping', { bubbles: false }));
    box.removeEventListener('ping', onBox);
    p.dispatchEvent(new Event('ping', { bubbles: true }));
    expect(seen).toEqual(['p once', 'p object', 'box', 'p object', 'p object']);

    const stopped: string[] = [];
    box.addEventListener('halt', () => stopped.push('box'));
    p.addEventListener('halt', (e) => {
      stopped.push('first');
      e.stopImmediatePropagation();
    });
    p.addEventListener('halt', () => stopped.push('second'));
    expect(p.dispatchEvent(new Event('halt', { bubbles: true }))).toBe(true);
    expect(stopped).toEqual(['first']);
  });

  it('gives the target, the current target and the phase to a listener, and reports a cancelled event', () => {
    const { p, box } = page();
    const calls: [unknown, unknown, number][] = [];
    box.addEventListener('go', (e) => {
      calls.push([e.target, e.currentTarget, e.eventPhase]);
      e.preventDefault();
    });
    const event = new Event('go', { bubbles: true, cancelable: true });
    expect(p.dispatchEvent(event)).toBe(false);
    expect(calls).toEqual([[p, box, Event.BUBBLING_PHASE]]);
    expect(event.eventPhase).toBe(Event.NONE);
  });

  it('leaves the standalone EventTarget as linkedom made it', () => {
    const target = new EventTarget() as unknown as Target;
    let called = 0;
    target.addEventListener('x', () => called++);
    target.dispatchEvent(new Event('x'));
    expect(called).toBe(1);
  });
});
