def main():
    run(debug=False)
