/** The parts of @lhncbc/ucum-lhc (NLM's UCUM library, CommonJS, no bundled types) this subgraph uses. */
declare module '@lhncbc/ucum-lhc' {
  interface UcumConversion {
    status: 'succeeded' | 'failed' | 'error';
    toVal: number | null;
    msg: string[];
  }
  interface UcumValidation {
    status: 'valid' | 'invalid' | 'error';
    ucumCode: string | null;
    msg: string[];
  }
  interface UcumLhcUtils {
    convertUnitTo(fromUnitCode: string, fromValue: number, toUnitCode: string): UcumConversion;
    validateUnitString(unit: string): UcumValidation;
  }
  const ucum: { UcumLhcUtils: { getInstance(): UcumLhcUtils } };
  export default ucum;
}
