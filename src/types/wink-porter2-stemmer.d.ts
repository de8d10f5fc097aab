declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of a lower-case English word. */
  function stem(word: string): string;
  export = stem;
}
