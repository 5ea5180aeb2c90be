// The part of autocannon's API that bench/load.ts and bench/ping-flood.ts use (the package ships no types).
declare module 'autocannon' {
  interface Histogram { average: number, max: number, p50: number, p90: number, p99: number }
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: Request) => Request
  }
  interface Options { url: string, connections?: number, duration?: number, overallRate?: number, requests?: Request[] }
  interface Result {
    duration: number
    start: Date
    finish: Date
    latency: Histogram
    requests: Histogram & { total: number }
    non2xx: number
    errors: number
    timeouts: number
    statusCodeStats?: Record<string, { count: number | string }>
  }
  function autocannon (options: Options): Promise<Result>
  export default autocannon
}
