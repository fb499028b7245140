// Where build Jobs run unless SLIPWAY_BUILD_NAMESPACE says otherwise (the chart's
// operator.buildNamespace): the operator creates them there, the gateway reads their logs there.
export const DEFAULT_BUILD_NAMESPACE = 'slipway-builds';
