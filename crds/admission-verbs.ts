// The custom verbs Slipway's admission policies check with the API server's authorizer.

/** On Environments: decide what an Environment runs (deploy to it, freeze it, promote to it). */
export const DEPLOY_VERB = 'deploy';
