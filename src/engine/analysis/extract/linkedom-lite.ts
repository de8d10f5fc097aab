/**
 * linkedom's nodes without an event-listener map each. linkedom's EventTarget constructor puts a fresh Map for every
 * node into a module WeakMap: a page of 20,000 nodes makes 20,000 maps and 20,000 weak entries, which the garbage
 * collector must trace as ephemerons. That is about a quarter of an extraction's time, and extraction never listens
 * to events. So linkedom's Node class is given a constructor parent that does nothing, and the three event methods
 * are defined again on Node with the map made on the first listener; they behave as linkedom's own (its
 * intentionally simple dispatch: the target, then its ancestors when the event bubbles).
 *
 * Applied once, on import, to the linkedom this package loads. When linkedom's classes are not shaped as expected
 * (another version), nothing is changed and linkedom runs as it is.
 */
import { EventTarget as LinkedomEventTarget, parseHTML } from 'linkedom';

type Listener = ((event: unknown) => void) | { handleEvent(event: unknown): void };
type Options = boolean | { once?: boolean } | undefined;

interface DispatchedEvent {
  type: string;
  bubbles: boolean;
  cancelBubble: boolean;
  defaultPrevented: boolean;
  eventPhase: number;
  currentTarget?: unknown;
  target?: unknown;
  _stopImmediatePropagationFlag: boolean;
}

interface EventNode {
  _getParent?: () => EventNode | null;
}

const PHASE = { NONE: 0, CAPTURING: 1, AT_TARGET: 2, BUBBLING: 3 } as const;

/** The listeners of each node that has any, by event type. */
const listeners = new WeakMap<object, Map<string, Map<Listener, Options>>>();

/** Calls `node`'s listeners for the event; true when one stopped propagation at once. */
function invoke(event: DispatchedEvent, node: EventNode, target: EventNode): boolean {
  const byType = listeners.get(node)?.get(event.type);
  if (!byType) return false;
  event.eventPhase = node === target ? PHASE.AT_TARGET : PHASE.BUBBLING;
  event.currentTarget = node;
  event.target = target;
  try {
    for (const [listener, options] of byType) {
      if (typeof options === 'object' && options?.once) byType.delete(listener);
      if (typeof listener === 'function') listener.call(target, event);
      else listener.handleEvent(event);
      if (event._stopImmediatePropagationFlag) return true;
    }
  } finally {
    delete event.currentTarget;
  }
  return event.cancelBubble;
}

const eventMethods = {
  addEventListener(this: object, type: string, listener: Listener, options?: Options): void {
    let byType = listeners.get(this);
    if (!byType) listeners.set(this, (byType = new Map()));
    let map = byType.get(type);
    if (!map) byType.set(type, (map = new Map()));
    map.set(listener, options);
  },
  removeEventListener(this: object, type: string, listener: Listener): void {
    const map = listeners.get(this)?.get(type);
    if (map?.delete(listener) && map.size === 0) listeners.get(this)?.delete(type);
  },
  dispatchEvent(this: EventNode, event: DispatchedEvent): boolean {
    event.eventPhase = PHASE.CAPTURING;
    const path: EventNode[] = [];
    let node: EventNode | null | undefined = this as EventNode | null;
    while (node) {
      path.push(node);
      node = event.bubbles ? node._getParent?.() : null;
    }
    for (const node of path) if (invoke(event, node, this)) break;
    event.eventPhase = PHASE.NONE;
    return !event.defaultPrevented;
  },
};

/** linkedom's Node class: the class whose parent is its EventTarget, found from a parsed element. */
function linkedomNodeClass(): (new (...args: never[]) => object) | null {
  const { document } = parseHTML('<html><body><p></p></body></html>');
  for (let proto: object | null = Object.getPrototypeOf(document.body); proto; proto = Object.getPrototypeOf(proto)) {
    if (Object.getPrototypeOf(proto) === LinkedomEventTarget.prototype) {
      const ctor = (proto as { constructor?: unknown }).constructor;
      return typeof ctor === 'function' ? (ctor as new (...args: never[]) => object) : null;
    }
  }
  return null;
}

/** Whether the nodes of this process's linkedom are built without listener maps (false: linkedom as it is). */
export const linkedomLite: boolean = (() => {
  try {
    const Node = linkedomNodeClass();
    if (!Node || Object.getPrototypeOf(Node) !== LinkedomEventTarget) return false;
    Object.defineProperties(Node.prototype, {
      addEventListener: { value: eventMethods.addEventListener, writable: true, configurable: true },
      removeEventListener: { value: eventMethods.removeEventListener, writable: true, configurable: true },
      dispatchEvent: { value: eventMethods.dispatchEvent, writable: true, configurable: true },
    });
    // `super()` in Node's constructor calls Node's prototype: a class that builds nothing.
    Object.setPrototypeOf(Node, class NoListenerMap {});
    return true;
  } catch {
    return false;
  }
})();
