/** Units of measure: never a topic on their own, and never the first word of a term after a number (`58 mm`). */
export const UNITS: ReadonlySet<string> = new Set(
  `in inch inches ft foot feet yd yard yards mi mile miles mm cm m km meter meters metre metres g kg gram grams
  kilogram kilograms lb lbs pound pounds oz ounce ounces ml l liter liters litre litres gal gallon gallons qt quart
  quarts cup cups tbsp tsp w kw kwh mw mwh wh watt watts kilowatt kilowatts volt volts v amp amps a hz khz mhz ghz
  btu btus psi bar mph kph rpm sec secs second seconds min mins minute minutes hr hrs hour hours day days week weeks
  month months year years percent pct degree degrees °f °c f c k mb gb tb kb ppm ppb mg mcg ml cc db dpi fps`
    .split(/\s+/)
    .filter(Boolean),
);
