/**
 * Background of generic English: frequent content lemmas and web boilerplate that appear on pages of any topic.
 * It is the "IDF" half of the importance weight: a term made only of these words says little about the topic, so
 * its weight is halved. Keys are lemma keys (see english.ts), so verbs and nouns appear in their base form and
 * adjectives as written.
 */
export const GENERIC_EN = new Set(
  `
  time year people way day thing world life hand part child eye place work week case point number group problem
  fact example home area end side head house service friend hour game line member question power money result
  change reason level moment idea information minute month body today word business issue story experience job
  name team kind lot bit type form order person family course system company program state country city
  help start look find give tell feel try leave call keep begin seem show hear play move live believe bring happen
  write provide sit stand lose pay meet include continue set learn lead understand watch follow stop create speak
  read allow add spend grow open walk win offer remember love consider appear buy wait serve send expect build
  stay fall cut reach remain suggest raise pass sell require report decide pull want need use say think
  know come ask turn put mean become hold talk check choose save note share enjoy
  new good great high small large big long little old different important able bad best better sure free true
  whole real easy hard full special clear recent certain personal common simple available likely possible popular
  top major main key final local right left early late low next last few many several various whole entire
  nice amazing awesome perfect ideal excellent quick fast slow
  click comment post page site website article email subscribe newsletter cookie cookies privacy policy login
  account menu search content blog link video image photo update updated copyright reserved advertisement ad
  review guide tip tips list option options thanks please today tomorrow yesterday
`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
