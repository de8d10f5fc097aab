/**
 * Form controls as page-type signals. Controls (<button>, <input>, <textarea>) never enter extraction's compact tree
 * (they are not text), so the one DOM walk that readMetadata already makes reports them here through `noteControl`.
 * What they are for tells page types apart: an add-to-cart button and a quantity box make a product page, many
 * checkboxes make a filterable collection, radio buttons are a product's variants, a reply box is a forum, a phone
 * or e-mail field is a service's contact form.
 */
import type { DomElement } from '../extract/dom.ts';

/** Accumulator for the DOM-walk part (form controls), filled while readMetadata walks the document. */
export interface ControlCounts {
  buttons: number;
  inputs: number;
  cartControls: number;
  quantityInputs: number;
  searchInputs: number;
  contactControls: number;
  replyControls: number;
  textareas: number;
  /** Checkboxes: a collection's or listing's filter facets. */
  checkboxes: number;
  /** Radio buttons: a product's variants (size, colour), or a form's choices. */
  radios: number;
  /** Hidden or named fields of a cart form (product or variant id). */
  productFields: number;
}

export function emptyControls(): ControlCounts {
  return {
    buttons: 0,
    inputs: 0,
    cartControls: 0,
    quantityInputs: 0,
    searchInputs: 0,
    contactControls: 0,
    replyControls: 0,
    textareas: 0,
    checkboxes: 0,
    radios: 0,
    productFields: 0,
  };
}

const CART =
  /add[\s_-]?to[\s_-]?(?:cart|bag|basket)|addtocart|buy[\s_-]?now|warenkorb|panier|carrito|carrello|winkelwagen|in den korb/i;
const CONTACT = /quote|estimate|appointment|book(?:ing)?\b|schedule|consult|contact|enquir|inquir|get started|request/i;
const REPLY = /\breply\b|\bquote\b|\bupvote|\bvote\b|like this post|reagieren|antworten|répondre/i;
const PRODUCT_FIELD = /^(?:id|product[_-]?id|variant[_-]?id|add-to-cart|sku|item[_-]?id|product)$/;

/** Counts one element seen in the metadata walk, when it is a form control. */
export function noteControl(el: DomElement, tag: string, c: ControlCounts): void {
  if (tag === 'button' || (tag === 'input' && /^(?:submit|button)$/i.test(el.getAttribute('type') ?? ''))) {
    noteButton(el, c);
    return;
  }
  if (tag === 'input') {
    c.inputs++;
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    const rawName = (el.getAttribute('name') ?? '').toLowerCase();
    const name = `${rawName} ${el.getAttribute('id') ?? ''}`.toLowerCase();
    if (type === 'search' || /\b(?:q|s|search|query|keywords?)\b/.test(name)) c.searchInputs++;
    else if (/qty|quantity/.test(name)) c.quantityInputs++;
    else if (type === 'email' || type === 'tel' || /phone|email|zip|postal/.test(name)) c.contactControls++;
    else if (type === 'checkbox') c.checkboxes++;
    else if (type === 'radio') c.radios++;
    else if (PRODUCT_FIELD.test(rawName)) c.productFields++;
  } else if (tag === 'textarea') c.textareas++;
}

function noteButton(el: DomElement, c: ControlCounts): void {
  c.buttons++;
  const label = `${el.getAttribute('name') ?? ''} ${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''} ${el.getAttribute('value') ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('data-action') ?? ''} ${textUnder(el)}`;
  if (CART.test(label)) c.cartControls++;
  else if (CONTACT.test(label)) c.contactControls++;
  else if (REPLY.test(label)) c.replyControls++;
}

/** The first characters of an element's text, read from at most 40 nodes: a button's label. */
function textUnder(el: DomElement): string {
  let out = '';
  const stack = [el.firstChild];
  let budget = 40;
  while (stack.length > 0 && budget-- > 0) {
    const n = stack.pop();
    if (!n) continue;
    if (n.nextSibling) stack.push(n.nextSibling);
    if (n.nodeType === 3) out += n.nodeValue ?? '';
    else if (n.firstChild) stack.push(n.firstChild);
  }
  return out.slice(0, 80);
}
