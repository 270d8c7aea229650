/** Stylesheets imported for their side effect: esbuild bundles them into the site's CSS file. */
declare module '*.css';
