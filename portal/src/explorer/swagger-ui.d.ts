/** swagger-ui-dist ships no types for its ES bundle; the explorer uses its one entry point. */
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  const SwaggerUI: (options: Record<string, unknown>) => unknown;
  export default SwaggerUI;
}
