/** Files imported `with { type: 'text' }` (esbuild's text loader): their contents as a string. */
declare module '*/standalone.js' {
  const text: string;
  export default text;
}
