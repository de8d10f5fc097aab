/** A small least-recently-used map: the bounded in-process caches of the engine (extractions, terms, sentences). */
export function lru<V>(max: number) {
  const map = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const v = map.get(key);
      if (v !== undefined) {
        map.delete(key);
        map.set(key, v);
      }
      return v;
    },
    set(key: string, value: V): void {
      map.delete(key);
      map.set(key, value);
      if (map.size > max) map.delete(map.keys().next().value!);
    },
  };
}
